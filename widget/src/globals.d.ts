/** Replaced at build time (src/embed/build-widget.ts): the panel file name with its content hash. */
declare const __GW_PANEL_FILE__: string;
