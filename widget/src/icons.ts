/** Inline SVG icons (static markup, never mixed with data). currentColor follows the theme. */
const svg = (body: string) =>
  `<svg viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">${body}</svg>`;

export const ICON_CHAT = svg('<path d="M21 12a8 8 0 0 1-11.6 7.1L4 20.5l1.4-5A8 8 0 1 1 21 12Z"/><path d="M8.5 12h.01M12 12h.01M15.5 12h.01" stroke-width="2.6"/>');
export const ICON_CLOSE = svg('<path d="M6 6l12 12M18 6 6 18"/>');
export const ICON_NEW = svg('<path d="M12 20h9"/><path d="M16.4 3.6a2 2 0 0 1 2.9 2.9L8 17.8l-4 1 1-4Z"/>');
export const ICON_SEND = svg('<path d="M5 12h14M13 6l6 6-6 6"/>');
export const ICON_MIC = svg('<rect x="9" y="3" width="6" height="11" rx="3"/><path d="M5 11a7 7 0 0 0 14 0M12 18v3"/>');
export const ICON_ALERT = svg('<circle cx="12" cy="12" r="9"/><path d="M12 7.5v5.5M12 16.5h.01"/>');
