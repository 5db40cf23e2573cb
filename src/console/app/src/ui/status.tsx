import { useEffect, useRef } from 'react';
import { problemOf } from '../errors';

/** A request that was refused or got no answer: the API's message and its error code. */
export function ErrorNotice({ error }: { error: unknown }) {
  const { message, code } = problemOf(error);
  return (
    <p role="alert" className="error">
      {code ? 'The service refused: ' : ''}
      {message}
      {code ? (
        <>
          {' '}
          <code className="code">{code}</code>
        </>
      ) : null}
    </p>
  );
}

/** A request under way, announced to screen readers once. */
export function Loading({ children }: { children: string }) {
  return (
    <p role="status" className="loading">
      {children}
    </p>
  );
}

/** The page's heading, which takes the focus when the page opens, so that a screen reader starts there. */
export function PageTitle({ children, title }: { children: React.ReactNode; title: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Operator console`;
  }, [title]);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {children}
    </h1>
  );
}
