// Configuration of @custom-elements-manifest/analyzer, run by esbuild.config.mjs as the build's last step:
// dist/custom-elements.json describes every element from the JSDoc on its class (@summary, @attr, @slot,
// @csspart, @cssprop, @fires), so editors and documentation read the same source as the code.
// The elements are registered through defineElement(), which the analyzer does not follow: each class names
// its tag with `@tagname`.

/**
 * Lit's `state: true` makes a property internal reactive state with no attribute, but the analyzer's Lit support
 * reads `static properties` as if every entry without `attribute: false` had one.
 */
function litStateHasNoAttribute() {
  return {
    name: 'svc-lit-state-has-no-attribute',
    analyzePhase({ ts, node, moduleDoc }) {
      if (!ts.isClassDeclaration(node)) return;
      const classDoc = moduleDoc.declarations?.find((d) => d.name === node.name?.getText());
      const properties = node.members.find(
        (m) => ts.isPropertyDeclaration(m) && m.name.getText() === 'properties' && m.initializer && ts.isObjectLiteralExpression(m.initializer),
      );
      if (!classDoc || !properties) return;
      for (const entry of properties.initializer.properties) {
        if (!ts.isPropertyAssignment(entry) || !ts.isObjectLiteralExpression(entry.initializer)) continue;
        const isState = entry.initializer.properties.some(
          (o) => ts.isPropertyAssignment(o) && o.name.getText() === 'state' && o.initializer.kind === ts.SyntaxKind.TrueKeyword,
        );
        if (!isState) continue;
        const name = entry.name.getText();
        classDoc.attributes = classDoc.attributes?.filter((a) => a.fieldName !== name);
        const field = classDoc.members?.find((m) => m.name === name);
        if (field) delete field.attribute;
      }
    },
  };
}

/**
 * An event dispatched under a computed name (`new CustomEvent(ok ? 'a' : 'b')`) is read as an event without a
 * name; the class's `@fires` tags name those events.
 */
function dropUnnamedEvents() {
  return {
    name: 'svc-drop-unnamed-events',
    packageLinkPhase({ customElementsManifest }) {
      for (const mod of customElementsManifest.modules) {
        for (const declaration of mod.declarations ?? []) {
          if (declaration.events) declaration.events = declaration.events.filter((e) => e.name);
        }
      }
    },
  };
}

export default {
  globs: ['plugins/*/*-element.ts'],
  exclude: ['**/*.test.ts'],
  outdir: 'dist',
  litelement: true,
  // package.json names the manifest itself (`customElements`); the build must not rewrite package.json.
  packagejson: false,
  plugins: [litStateHasNoAttribute(), dropUnnamedEvents()],
};
