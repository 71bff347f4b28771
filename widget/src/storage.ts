import type { SessionStore } from './types';

const SESSION_ID = /^sess_[0-9A-Za-z]{1,64}$/;

/**
 * The chat session id, per organisation and KB, in localStorage so a conversation survives page
 * loads. Storage can be missing or throw (privacy modes, sandboxed frames): then memory only.
 */
export function sessionStore(org: string, kb: string): SessionStore {
  const key = `groundwork:${org}:${kb}:session`;
  let memory: string | null = null;
  return {
    get() {
      try {
        const v = localStorage.getItem(key);
        return v && SESSION_ID.test(v) ? v : null;
      } catch {
        return memory;
      }
    },
    set(id) {
      memory = id;
      try {
        localStorage.setItem(key, id);
      } catch {
        // memory only
      }
    },
    clear() {
      memory = null;
      try {
        localStorage.removeItem(key);
      } catch {
        // nothing stored
      }
    },
  };
}
