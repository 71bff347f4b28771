import { describe, expect, it } from 'vitest';
import { answerLanguage, chunkLanguage, detectLanguage, detectLanguageOf, questionLanguage, searchConfig } from '../../src/text/language';

const SAMPLES: Record<string, string> = {
  en: 'The company reported higher revenue in the third quarter, driven by strong demand for its cloud services.',
  de: 'Das Unternehmen meldete im dritten Quartal höhere Umsätze, getrieben von einer starken Nachfrage nach seinen Diensten.',
  es: 'La empresa informó mayores ingresos en el tercer trimestre, impulsados por una fuerte demanda de sus servicios.',
  ru: 'Компания сообщила о росте выручки в третьем квартале благодаря высокому спросу на облачные услуги. Руководство ожидает, что в следующем году рост продолжится, хотя расходы тоже вырастут.',
  ar: 'أعلنت الشركة عن ارتفاع الإيرادات في الربع الثالث بفضل الطلب القوي على خدماتها السحابية.',
  zh: '该公司报告第三季度收入增长，这得益于市场对其云服务的强劲需求。',
  ja: '同社は第3四半期の売上高が増加したと発表しました。クラウドサービスへの需要が強かったためです。',
  th: 'บริษัทรายงานรายได้ที่เพิ่มขึ้นในไตรมาสที่สาม เนื่องจากความต้องการบริการคลาวด์ที่แข็งแกร่ง',
};

describe('language detection', () => {
  it('detects the language of a document in each script', () => {
    for (const [language, text] of Object.entries(SAMPLES)) expect(detectLanguage(text), language).toBe(language);
    expect(detectLanguageOf([SAMPLES.de!, SAMPLES.de!, SAMPLES.de!, SAMPLES.de!])).toBe('de');
    expect(detectLanguage('42')).toBeNull();
  });

  it('reads a question among the KB languages, a minor language not taking the main one’s questions', () => {
    expect(questionLanguage('Wer war der erste Präsident?', [{ language: 'de', documents: 10 }])).toBe('de');
    expect(questionLanguage('Who was the first president?', [{ language: 'en', documents: 200 }, { language: 'ca', documents: 1 }])).toBe('en');
    expect(questionLanguage('长城有多长？', [{ language: 'en', documents: 5 }, { language: 'zh', documents: 5 }, { language: 'ja', documents: 5 }])).toBe('zh');
    expect(questionLanguage('富士山の標高はどのくらいですか？', [{ language: 'zh', documents: 5 }, { language: 'ja', documents: 5 }])).toBe('ja');
  });

  it('keeps a chunk in its document’s language unless it is clearly in another', () => {
    expect(chunkLanguage('Plain ASCII text in a German document.', 'de')).toBe('de');
    expect(chunkLanguage(SAMPLES.zh!, 'en')).toBe('zh');
    expect(chunkLanguage(SAMPLES.de!, 'en')).toBe('de');
    // A document in another language reads a section in English (or another language of its script) as such.
    const english = `${SAMPLES.en} The board expects growth to continue next year, although costs will rise as well, and it will report on the results of the new services in the spring.`;
    expect(chunkLanguage(english, 'de')).toBe('en');
    expect(chunkLanguage(english, 'es')).toBe('en');
    const german = `${SAMPLES.de} Die Geschäftsführung erwartet, dass das Wachstum im nächsten Jahr anhält, auch wenn die Kosten steigen werden.`;
    expect(chunkLanguage(german, 'de')).toBe('de');
    expect(chunkLanguage(SAMPLES.es!, 'es')).toBe('es');
    expect(chunkLanguage(`${SAMPLES.es} La dirección espera que el crecimiento continúe el próximo año, aunque los costes también aumentarán.`, 'de')).toBe('es');
  });

  it('answers in the language of the question and its best passage', () => {
    expect(answerLanguage('Wie hoch ist der Berg?', [SAMPLES.de!, SAMPLES.en!])).toBe('de');
    expect(answerLanguage('长城有多长？', [SAMPLES.ru!])).toBe('zh');
    expect(answerLanguage('長城の長さは？', [SAMPLES.ja!])).toBe('ja');
    expect(answerLanguage('How tall is it?', ['A plain English passage.'])).toBe('en');
  });

  it('searches with PostgreSQL’s configuration for the language, simple words for the rest', () => {
    expect(searchConfig('de')).toBe('german');
    expect(searchConfig('zh')).toBe('simple');
    expect(searchConfig(null)).toBe('english');
  });
});

describe('short texts', () => {
  it('reads a one-line document by its function words, not trigrams alone', () => {
    expect(detectLanguage('New employees get 25 days of paid leave per year.')).toBe('en');
    expect(detectLanguage('Neue Mitarbeiter bekommen 25 Tage bezahlten Urlaub im Jahr.')).toBe('de');
  });
});
