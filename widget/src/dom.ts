/** Small DOM helpers shared by the loader and the panel. */

/**
 * Adds a stylesheet to the shadow root. Constructable stylesheets are not inline styles, so pages
 * with a strict Content-Security-Policy (no 'unsafe-inline' for style-src) still style the widget;
 * older browsers get a <style> element.
 */
export function adoptStyles(shadow: ShadowRoot, css: string) {
  try {
    if ('adoptedStyleSheets' in shadow && 'replaceSync' in CSSStyleSheet.prototype) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      shadow.adoptedStyleSheets = [...shadow.adoptedStyleSheets, sheet];
      return;
    }
  } catch {
    // fall through to <style>
  }
  const style = document.createElement('style');
  style.textContent = css;
  shadow.append(style);
}

type Child = Node | string | null | undefined | false;

/** An element with its attributes (true: present and empty; false or undefined: absent) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | undefined> = {}, ...children: Child[]) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child) el.append(child);
  return el;
}
