// The reference page's own HTML, script and styles (Swagger UI's come from its package: api-reference.ts).

/** The page: Swagger UI draws the description into `#reference`. */
export const REFERENCE_PAGE = (base: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc API reference</title>
<link rel="stylesheet" href="${base}/swagger-ui.css">
<link rel="stylesheet" href="${base}/reference.css">
</head>
<body>
<main id="reference" aria-label="svc API reference"></main>
<noscript>The reference needs JavaScript; the description itself is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<script src="${base}/swagger-ui-bundle.js"></script>
<script src="${base}/reference.js"></script>
</body>
</html>
`;

/**
 * Swagger UI, read-only: no "Try it out" (a reference, not a client that would hold keys), no validator badge (it would
 * ask validator.swagger.io), links to each operation (deep linking).
 */
export const REFERENCE_SCRIPT = (url: string): string => `window.addEventListener('DOMContentLoaded', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(url)},
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    supportedSubmitMethods: [],
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
  });
});
`;

/** Contrast and spacing on top of Swagger UI's styles. */
export const REFERENCE_CSS = `body { margin: 0; }
`;
