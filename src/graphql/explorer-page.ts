/** The files of the explorer page that are this service's own, named as the page links them. */
export const OWN_FILES = {
  // Run once the deferred scripts before it have defined React, ReactDOM and GraphiQL. Queries go
  // to the page's own path, so the page keeps working behind a proxy that mounts it elsewhere.
  'explorer.js': `'use strict';
(function () {
  var defaultQuery = [
    '# Sign in with the login mutation, then put its access token in the Headers tab:',
    '# { "Authorization": "Bearer <accessToken>" }',
    '{',
    '  config {',
    '    registrationEnabled',
    '  }',
    '}',
    '',
  ].join('\\n');
  var fetcher = GraphiQL.createFetcher({ url: location.pathname });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, { fetcher: fetcher, defaultQuery: defaultQuery, shouldPersistHeaders: false }),
  );
})();
`,
  'explorer.css': `html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
.explorer-bar { padding: 6px 12px; font-size: 14px; border-bottom: 1px solid #ddd; }
#graphiql { flex: 1; min-height: 0; }
`,
} as const;

/** The page's files, as `href`s: GraphiQL's and React's from their packages, then the page's own. */
export interface PageLinks {
  styles: string[];
  scripts: string[];
}

/**
 * The GraphiQL page. No inline script or style, so that its CSP can stay `'self'`; the link to
 * Apollo Sandbox works without JavaScript, and keeps the path the page was opened at.
 */
export function explorerPage({ styles, scripts }: PageLinks): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>meeting-accounts GraphQL</title>
<link rel="icon" href="data:,">
${styles.map((href) => `<link rel="stylesheet" href="${href}">`).join('\n')}
${scripts.map((src) => `<script defer src="${src}"></script>`).join('\n')}
</head>
<body>
<div class="explorer-bar">meeting-accounts GraphQL &middot; <a href="?explorer=sandbox">Open Apollo Sandbox</a> (loads from Apollo's servers: needs Internet access)</div>
<div id="graphiql">Loading GraphiQL&hellip;</div>
<noscript>GraphiQL needs JavaScript.</noscript>
</body>
</html>
`;
}
