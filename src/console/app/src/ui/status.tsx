import { useEffect, useRef } from 'react';
import { problemOf } from '../errors';
import { useMessages } from '../i18n/messages';

/** A request that was refused or got no answer: the API's message and its error code. */
export function ErrorNotice({ error }: { error: unknown }) {
  const messages = useMessages();
  const { message, code } = problemOf(error, messages);
  return (
    <p role="alert" className="error">
      {code
        ? messages.rich('error.refused', {
            message,
            code: (
              <code key="code" className="code">
                {code}
              </code>
            ),
          })
        : message}
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

/**
 * The page's heading, which takes the focus when the page opens, so that a screen reader starts
 * there; the document's title says the page, in the console's language.
 */
export function PageTitle({ children, title }: { children: React.ReactNode; title: string }) {
  const { t } = useMessages();
  const heading = useRef<HTMLHeadingElement>(null);
  const documentTitle = t('console.title', { page: title });
  useEffect(() => {
    document.title = documentTitle;
  }, [documentTitle]);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {children}
    </h1>
  );
}
