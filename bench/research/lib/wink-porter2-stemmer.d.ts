declare module 'wink-porter2-stemmer' {
  /** Snowball English (Porter2) stemmer; expects a lower-cased word. */
  export default function stem(word: string): string;
}
