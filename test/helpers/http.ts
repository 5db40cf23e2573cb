import { print } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface GraphQLError {
  message: string;
  path?: string[];
  extensions?: { code?: string; fields?: Record<string, string>; retryAfter?: number; [key: string]: unknown };
}

export interface GraphQLResponse<T> {
  data?: T | null;
  errors?: GraphQLError[];
}

/** A small client for the service's two transports, over real HTTP. */
export class HttpClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if (/json/.test(response.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }

  post<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...options, body });
  }

  /** Runs a typed operation (generated from test/operations by codegen). */
  async gql<TData, TVariables>(
    document: TypedDocumentNode<TData, TVariables>,
    variables?: TVariables,
    options: Omit<RequestOptions, 'body'> = {},
  ): Promise<HttpResult<GraphQLResponse<TData>>> {
    return this.request('POST', '/graphql', { ...options, body: { query: print(document), variables } });
  }
}
