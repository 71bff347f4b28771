// @vitest-environment jsdom
/**
 * The widget's sources list: an answer's citations are "Sources"; a refused answer's passages
 * (every one `used: false`) are shown as the closest passages, not as sources of the answer.
 */
import { describe, expect, it } from 'vitest';
import { renderSources } from '../../widget/src/panel';

const passage = (marker: number, used?: boolean) => ({
  marker,
  filename: 'orchard.md',
  url: null,
  page: null,
  heading: 'Harvest',
  snippet: 'The Bramley harvest starts in the second week of September.',
  ...(used === undefined ? {} : { used }),
});

describe('renderSources', () => {
  it('labels a refusal’s passages as the closest ones, not used in the answer', () => {
    const el = renderSources([passage(1, false), passage(2, false)]);
    expect(el.classList.contains('closest')).toBe(true);
    expect(el.querySelector('.sources-title')!.textContent).toMatch(/closest passages/i);
    expect(el.querySelector('.sources-title')!.textContent).toMatch(/not used/i);
    expect(el.querySelectorAll('li')).toHaveLength(2);
  });

  it('keeps "Sources" for an answer’s citations (and for stored ones without the flag)', () => {
    for (const list of [[passage(1, true)], [passage(1)]]) {
      const el = renderSources(list);
      expect(el.classList.contains('closest')).toBe(false);
      expect(el.querySelector('.sources-title')!.textContent).toBe('Sources');
    }
  });
});
