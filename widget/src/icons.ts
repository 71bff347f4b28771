/**
 * Icons, built with DOM calls rather than markup: pages that enforce Trusted Types refuse
 * innerHTML, and the widget must work there too. currentColor follows the theme.
 */
type Part = [tag: 'path' | 'rect' | 'circle', attrs: Record<string, string>];

const p = (d: string, extra: Record<string, string> = {}): Part => ['path', { d, ...extra }];

export const ICON_CHAT: Part[] = [p('M21 12a8 8 0 0 1-11.6 7.1L4 20.5l1.4-5A8 8 0 1 1 21 12Z'), p('M8.5 12h.01M12 12h.01M15.5 12h.01', { 'stroke-width': '2.6' })];
export const ICON_CLOSE: Part[] = [p('M6 6l12 12M18 6 6 18')];
export const ICON_NEW: Part[] = [p('M12 20h9'), p('M16.4 3.6a2 2 0 0 1 2.9 2.9L8 17.8l-4 1 1-4Z')];
export const ICON_SEND: Part[] = [p('M5 12h14M13 6l6 6-6 6')];
export const ICON_MIC: Part[] = [['rect', { x: '9', y: '3', width: '6', height: '11', rx: '3' }], p('M5 11a7 7 0 0 0 14 0M12 18v3')];
// Thumbs for rating an answer: drawn, not emoji, which show as empty boxes where no emoji font is installed.
export const ICON_THUMB_UP: Part[] = [p('M7 10v11'), p('M15 5.9 14 10h5.8a2 2 0 0 1 1.9 2.6l-2.3 7A2 2 0 0 1 17.5 21H4a1 1 0 0 1-1-1v-9a1 1 0 0 1 1-1h2.8a2 2 0 0 0 1.8-1.1L12 2a3.1 3.1 0 0 1 3 3.9Z')];
export const ICON_THUMB_DOWN: Part[] = [p('M17 14V3'), p('M9 18.1 10 14H4.2a2 2 0 0 1-1.9-2.6l2.3-7A2 2 0 0 1 6.5 3H20a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1h-2.8a2 2 0 0 0-1.8 1.1L12 22a3.1 3.1 0 0 1-3-3.9Z')];
export const ICON_ALERT: Part[] = [['circle', { cx: '12', cy: '12', r: '9' }], p('M12 7.5v5.5M12 16.5h.01')];

const NS = 'http://www.w3.org/2000/svg';
const SVG_ATTRS: Record<string, string> = {
  viewBox: '0 0 24 24',
  width: '24',
  height: '24',
  fill: 'none',
  stroke: 'currentColor',
  'stroke-width': '2',
  'stroke-linecap': 'round',
  'stroke-linejoin': 'round',
  'aria-hidden': 'true',
  focusable: 'false',
};

export function icon(parts: Part[], className?: string): SVGSVGElement {
  const svg = document.createElementNS(NS, 'svg');
  for (const [k, v] of Object.entries(SVG_ATTRS)) svg.setAttribute(k, v);
  if (className) svg.setAttribute('class', className);
  for (const [tag, attrs] of parts) {
    const el = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    svg.append(el);
  }
  return svg;
}
