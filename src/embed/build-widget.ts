/**
 * Bundles the widget (widget/src, TypeScript) with esbuild into four files:
 *   widget.js        the loader every page view downloads: reads its script tag, renders the bubble
 *   widget-panel.js  the chat panel, an ES module the loader imports on first open (or hover)
 *   widget-voice.js  the voice conversation, an ES module the panel imports on the first microphone click
 *   widget-audio.js  the AudioWorklet module (capture resampler and player) the voice module loads
 * Each file names the next one with a content hash (`widget-panel.js?v=<hash>`), so the lazily loaded
 * files can be cached forever and a new deploy can never pair an old loader with a new panel.
 *
 * `npm run build:widget` (also run by postinstall) writes them to dist/widget/ (git-ignored); the
 * server builds in memory when they are missing, so a checkout that skipped install scripts still works.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { BUNDLED, REPO_ROOT } from '../repo-root';

export const WIDGET_SOURCE_DIR = path.join(REPO_ROOT, 'widget', 'src');
export const WIDGET_DIST_DIR = path.join(REPO_ROOT, 'dist', 'widget');
export const LOADER_FILE = 'widget.js';
export const PANEL_FILE = 'widget-panel.js';
export const VOICE_FILE = 'widget-voice.js';
export const AUDIO_FILE = 'widget-audio.js';

export type WidgetBuild = {
  loader: Uint8Array;
  panel: Uint8Array;
  panelVersion: string;
  voice: Uint8Array;
  voiceVersion: string;
  audio: Uint8Array;
  audioVersion: string;
};

/** The panel's cache-busting version: a hash of its bytes, recomputable from a built file. */
export function contentVersion(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64url').slice(0, 12);
}

const common: BuildOptions = {
  bundle: true,
  minify: true,
  write: false,
  charset: 'utf8',
  legalComments: 'none',
  // Browsers of the last ~3 years; the widget degrades (no top layer) but works without popover support.
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  logLevel: 'silent',
};

const versioned = (file: string, bytes: Uint8Array) => JSON.stringify(`${file}?v=${contentVersion(bytes)}`);

export async function buildWidget(): Promise<WidgetBuild> {
  const entry = (name: string) => path.join(WIDGET_SOURCE_DIR, name);
  const audio = (await build({ ...common, entryPoints: [entry('audio-worklet.ts')], format: 'esm' })).outputFiles![0]!.contents;
  const voice = (
    await build({ ...common, entryPoints: [entry('voice.ts')], format: 'esm' })
  ).outputFiles![0]!.contents;
  const panel = (
    await build({
      ...common,
      entryPoints: [entry('panel.ts')],
      format: 'esm',
      define: { __GW_VOICE_FILE__: versioned(VOICE_FILE, voice), __GW_AUDIO_FILE__: versioned(AUDIO_FILE, audio) },
    })
  ).outputFiles![0]!.contents;
  const loader = await build({
    ...common,
    entryPoints: [entry('loader.ts')],
    format: 'iife',
    define: { __GW_PANEL_FILE__: versioned(PANEL_FILE, panel) },
  });
  return {
    loader: loader.outputFiles![0]!.contents,
    panel,
    panelVersion: contentVersion(panel),
    voice,
    voiceVersion: contentVersion(voice),
    audio,
    audioVersion: contentVersion(audio),
  };
}

export async function writeWidgetBuild(outDir = WIDGET_DIST_DIR): Promise<WidgetBuild> {
  const built = await buildWidget();
  mkdirSync(outDir, { recursive: true });
  // Named files first: a file must never be visible before the file it names.
  writeFileSync(path.join(outDir, AUDIO_FILE), built.audio);
  writeFileSync(path.join(outDir, VOICE_FILE), built.voice);
  writeFileSync(path.join(outDir, PANEL_FILE), built.panel);
  writeFileSync(path.join(outDir, LOADER_FILE), built.loader);
  return built;
}

if (!BUNDLED && process.argv[1] === fileURLToPath(import.meta.url)) {
  // From postinstall a failure must not fail `npm install`: the server falls back to building in memory.
  const lenient = process.argv.includes('--postinstall');
  writeWidgetBuild().then(
    (b) =>
      console.log(
        `built dist/widget/${LOADER_FILE} (${b.loader.byteLength} B), ${PANEL_FILE} (${b.panel.byteLength} B), ${VOICE_FILE} (${b.voice.byteLength} B) and ${AUDIO_FILE} (${b.audio.byteLength} B)`,
      ),
    (err) => {
      console.error(`widget build failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = lenient ? 0 : 1;
    },
  );
}
