// The reference page's own HTML, script and styles (Swagger UI's come from its package: api-reference.ts).

/** The page: Swagger UI draws the description into `#reference`. */
export const REFERENCE_PAGE = (base: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${base}/swagger-ui.css">
<link rel="stylesheet" href="${base}/reference.css">
</head>
<body>
<div id="reference"></div>
<noscript>The reference needs JavaScript; the description itself is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<script src="${base}/swagger-ui-bundle.js"></script>
<script src="${base}/reference.js"></script>
</body>
</html>
`;

/**
 * Swagger UI, read-only: no "Try it out" (a reference, not a client that would hold keys), no validator badge (it would
 * ask validator.swagger.io), no deep links (Swagger UI draws them as a link inside each operation's button, a control
 * inside a control). Two repairs of its markup for assistive technology, redone whenever it draws: the block above the
 * operations becomes a labelled region (else it is outside every landmark), and a heading of level 2 closes it (Swagger UI
 * goes from its h1 to the groups' h3).
 */
export const REFERENCE_SCRIPT = (url: string): string => `window.addEventListener('DOMContentLoaded', function () {
  var root = document.getElementById('reference');
  var repair = function () {
    var info = root.querySelector('.information-container');
    if (!info || info.querySelector('#reference-routes')) return;
    info.setAttribute('role', 'region');
    info.setAttribute('aria-label', 'About the API');
    var heading = document.createElement('h2');
    heading.id = 'reference-routes';
    heading.className = 'reference-hidden';
    heading.textContent = 'Routes';
    info.appendChild(heading);
  };
  new MutationObserver(repair).observe(root, { childList: true, subtree: true });
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(url)},
    dom_id: '#reference',
    deepLinking: false,
    validatorUrl: null,
    supportedSubmitMethods: [],
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
  });
});
`;

/** Swagger UI's badges, links, methods and notes in colours that read (4.5:1 or more), and the hidden heading. */
export const REFERENCE_CSS = `body { margin: 0; }
.swagger-ui .info .title small { background: #4d535c; }
.swagger-ui .info .title small.version-stamp { background: #2f6b00; }
.swagger-ui .info .url, .swagger-ui .info a { color: #1f5fa8; }
.swagger-ui .btn.authorize { color: #1d6b43; border-color: #1d6b43; }
.swagger-ui .btn.authorize svg, .swagger-ui .btn.authorize svg path { fill: #1d6b43; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1e7b4d; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1f5fa8; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8f5500; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f7060; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b4231f; }
.swagger-ui .parameter__in, .swagger-ui .parameter__deprecated, .swagger-ui .prop-format { color: #595959; }
.reference-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;
