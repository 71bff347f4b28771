import { createHash } from 'node:crypto';
import { randomBase62 } from '../../ids';

/** 43 base62 characters: ~256 bits, so a plain sha256 is enough to store it (no slow KDF needed). */
export const newSecret = (): string => randomBase62(43);
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');
export const SECRET_SHAPE = /^[0-9A-Za-z]{43}$/;

/** How long a dashboard session lasts: a working day, then sign in again. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** How long a CLI sign-in link stays usable (once). */
export const SIGN_IN_LINK_TTL_MS = 15 * 60 * 1000;
