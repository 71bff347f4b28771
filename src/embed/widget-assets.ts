/**
 * The widget files as the server sends them: bytes, pre-compressed variants and ETags, prepared once
 * per process. Production serves dist/widget (built at install) and builds in memory only if it is
 * missing or older than the widget source (a `git pull` without `npm install`); elsewhere the bundle
 * is always built from source at first request, so development and tests never serve a stale build.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { AUDIO_FILE, buildWidget, contentVersion, LOADER_FILE, PANEL_FILE, VOICE_FILE, WIDGET_DIST_DIR, WIDGET_SOURCE_DIR, type WidgetBuild } from './build-widget';

export type Encoding = 'br' | 'gzip' | 'identity';

export type WidgetAsset = {
  /** Strong validator of the uncompressed bytes; each encoding gets its own suffix. */
  hash: string;
  bodies: Record<Encoding, Uint8Array>;
};

export type WidgetAssets = {
  loader: WidgetAsset;
  panel: WidgetAsset;
  panelVersion: string;
  voice: WidgetAsset;
  voiceVersion: string;
  audio: WidgetAsset;
  audioVersion: string;
};

const FILES = [LOADER_FILE, PANEL_FILE, VOICE_FILE, AUDIO_FILE];

function prepare(bytes: Uint8Array): WidgetAsset {
  return {
    hash: createHash('sha256').update(bytes).digest('base64url').slice(0, 20),
    bodies: {
      identity: bytes,
      gzip: gzipSync(bytes, { level: 9 }),
      br: brotliCompressSync(bytes, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }),
    },
  };
}

async function newestSourceMtime(): Promise<number> {
  try {
    const files = await readdir(WIDGET_SOURCE_DIR);
    const times = await Promise.all(files.map(async (f) => (await stat(path.join(WIDGET_SOURCE_DIR, f))).mtimeMs));
    return Math.max(0, ...times);
  } catch {
    return 0; // no sources shipped: the prebuilt files are all there is
  }
}

async function readPrebuilt(): Promise<WidgetBuild | null> {
  try {
    const builtAt = Math.min(...(await Promise.all(FILES.map(async (f) => (await stat(path.join(WIDGET_DIST_DIR, f))).mtimeMs))));
    if ((await newestSourceMtime()) > builtAt) return null;
    const [loader, panel, voice, audio] = await Promise.all(FILES.map((f) => readFile(path.join(WIDGET_DIST_DIR, f))));
    return {
      loader: loader!,
      panel: panel!,
      panelVersion: contentVersion(panel!),
      voice: voice!,
      voiceVersion: contentVersion(voice!),
      audio: audio!,
      audioVersion: contentVersion(audio!),
    };
  } catch {
    return null;
  }
}

let cached: Promise<WidgetAssets> | null = null;

export function loadWidgetAssets(config: Pick<Config, 'env'>, logger?: Logger): Promise<WidgetAssets> {
  cached ??= (async () => {
    let built = config.env === 'production' ? await readPrebuilt() : null;
    if (!built) {
      const started = performance.now();
      built = await buildWidget();
      logger?.info({ ms: Math.round(performance.now() - started) }, 'widget bundle built in memory');
    }
    return {
      loader: prepare(built.loader),
      panel: prepare(built.panel),
      panelVersion: built.panelVersion,
      voice: prepare(built.voice),
      voiceVersion: built.voiceVersion,
      audio: prepare(built.audio),
      audioVersion: built.audioVersion,
    };
  })().catch((err) => {
    cached = null; // let the next request try again
    throw err;
  });
  return cached;
}
