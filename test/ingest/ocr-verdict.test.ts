/**
 * What an OCR reading is worth (src/ingest/ocr.ts judgeOcrReading): a page is left out as
 * unreadable only when tesseract's confidence and the text's word share are both low; either alone
 * keeps the page, indexed with a warning. The readings below are the shapes tesseract gives: the
 * garbage of a sideways scan (issue 44), a confident label with no word-shaped tokens, faint prose.
 */
import { describe, expect, it } from 'vitest';
import { judgeOcrReading, OCR_SURE, OCR_UNREADABLE, textQuality } from '../../src/ingest/ocr';

const NOISE_READING =
  'TR LS RES\nERC as\nte rl LR SE a\nCUENTA Sat\nRE BETS o ae\nRen Ses ie SS\nER\nSE CSE EEE\nSe Te\nVesela sey\nRE TER ES\nfk PE Cl SS RE\nSLL Sadie dh\nSE ts Sees\nde Ae\nSan\nSs\ni SON RS AD Dt SEE TE PIA AE) Se diin\n';

describe('textQuality', () => {
  it('scores prose high and the OCR of a sideways scan low', () => {
    expect(textQuality('The Riverside depot opens at seven in the morning.')).toBeGreaterThan(OCR_SURE.quality);
    expect(textQuality('2 = 3 iB g 5 ZN E TE z 5 pos £')).toBeLessThan(OCR_UNREADABLE.quality);
    expect(textQuality('')).toBe(0);
    expect(textQuality('ANNUAL REPORT OF THE BOARD FOR THE YEAR 2024')).toBeGreaterThan(OCR_SURE.quality);
    expect(textQuality('Base 128 | 64,058 800.73 (484.11) N/A')).toBeGreaterThan(OCR_SURE.quality);
  });
});

describe('judgeOcrReading', () => {
  const garbage = textQuality('2 = 3 iB g 5 ZN E TE z 5 pos £');
  const prose = textQuality('Deliveries arrive on Tuesdays and Fridays before noon.');

  it('calls a reading unreadable when confidence and text quality are both low', () => {
    expect(judgeOcrReading({ confidence: 20, quality: garbage })).toBe('unreadable');
    // What tesseract reads (13% confidence) on the page of grey noise of test/api/ocr-orientation.test.ts:
    // short scraps, a few word-shaped by chance.
    expect(judgeOcrReading({ confidence: 13, quality: textQuality(NOISE_READING) })).toBe('unreadable');
  });

  it('keeps a confident reading whose text is not word-shaped, as unsure', () => {
    // scan-bad.pdf of the shared corpus reads "| pdf.js" at 87% confidence.
    expect(judgeOcrReading({ confidence: 87, quality: textQuality('| pdf.js') })).toBe('unsure');
  });

  it('keeps real words read with low confidence, as unsure', () => {
    expect(judgeOcrReading({ confidence: 20, quality: prose })).toBe('unsure');
  });

  it('is sure of a confident reading of words', () => {
    expect(judgeOcrReading({ confidence: 92, quality: prose })).toBe('sure');
  });

  it('places the edges at the thresholds', () => {
    expect(judgeOcrReading({ confidence: OCR_UNREADABLE.confidence, quality: 0 })).toBe('unsure');
    expect(judgeOcrReading({ confidence: 0, quality: OCR_UNREADABLE.quality })).toBe('unsure');
    expect(judgeOcrReading({ confidence: OCR_SURE.confidence, quality: OCR_SURE.quality })).toBe('sure');
  });
});
