/** Replaced at build time (src/embed/build-widget.ts): the panel file name with its content hash. */
declare const __GW_PANEL_FILE__: string;
/** Replaced at build time: the voice module's file name with its content hash (read by the panel). */
declare const __GW_VOICE_FILE__: string;
/** Replaced at build time: the audio worklet module's file name with its content hash (read by the panel). */
declare const __GW_AUDIO_FILE__: string;
