/*
 * The API reference's initializer (api/docs/reference.tsx, issue 23): Swagger UI (npm package
 * swagger-ui-dist, served by the product at /docs/assets/) draws the OpenAPI document named by the
 * data-spec-url of #swagger-ui. A file, not an inline script: the page's CSP allows only the
 * product's own scripts carrying the response's nonce. Reading only: no "Try it out" (no request is
 * sent from the reference, no key is typed into it), no validator badge (it would call a third-party
 * service), no spec URL taken from the query string.
 */
(function () {
  'use strict';
  var el = document.getElementById('swagger-ui');
  var SwaggerUIBundle = window.SwaggerUIBundle;
  if (!el || typeof SwaggerUIBundle !== 'function') return;
  window.ui = SwaggerUIBundle({
    url: el.getAttribute('data-spec-url'),
    domNode: el,
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    docExpansion: 'list',
    displayOperationId: true,
    filter: true,
    supportedSubmitMethods: [],
    tryItOutEnabled: false,
    validatorUrl: null,
    queryConfigEnabled: false,
  });
})();
