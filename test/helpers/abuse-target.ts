/** The server an abuse run attacks: abuse.ts sends to it, neighbour-process.ts measures beside it. */
export type Target = { url: string; key: string; kbId: string; docId: string };
