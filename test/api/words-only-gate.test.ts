/**
 * The refusal gate for passages in a language other than English judges words alone (the offline
 * embedding is English), and weighs most the BM25 share, the one part that knows the whole KB.
 * Through REST on a German KB of invented paragraphs: questions asked in a paragraph's words and in
 * related forms (Klosterbibliothek, Uhren, reift) are answered from it, and questions the KB has
 * nothing about are refused. The calibration itself is measured by `npm run bench -- languages`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchableKb } from '../helpers/searchable-kb';

const PARAGRAPHS = {
  'uhrmacher.txt':
    'Die Uhrmacherei Brandtner wurde 1871 in der kleinen Stadt Felsach gegründet. Der Gründer Anton Brandtner verkaufte anfangs Taschenuhren an Bergleute. Nach seinem Tod übernahmen seine beiden Töchter Klara und Emma das Geschäft und eröffneten eine zweite Werkstatt in Lindau. Heute beschäftigt das Unternehmen vierzig Handwerker.',
  'bahn.txt':
    'Die Felsacher Talbahn verbindet seit 1903 das Dorf Obermoos mit dem Bahnhof Felsach. Die Strecke ist elf Kilometer lang und überwindet dabei dreihundert Höhenmeter. Im Winter fährt die Bahn nur an Wochenenden, weil Schnee die oberen Gleise häufig verschüttet. Die Dampflok der Talbahn stammt aus einer Fabrik in Esslingen.',
  'kloster.txt':
    'Das Kloster Sankt Veit liegt auf einem Hügel über dem Fluss Ammerbach. Mönche des Benediktinerordens bewohnten es bis zur Säkularisation im Jahr 1803. Danach diente das Gebäude als Schule und später als Lazarett. Die Bibliothek des Klosters bewahrt noch heute über zwölftausend Handschriften auf.',
  'kaese.txt':
    'Der Felsacher Bergkäse reift mindestens acht Monate in Felsenkellern. Die Milch stammt ausschließlich von Kühen, die im Sommer auf den Almen weiden. Jedes Jahr im Oktober feiert der Ort ein Käsefest, bei dem der schwerste Laib prämiert wird. Die Sennerei exportiert ihren Käse inzwischen bis nach Japan.',
};

let kb: Awaited<ReturnType<typeof searchableKb>>;
beforeAll(async () => {
  kb = await searchableKb(Object.entries(PARAGRAPHS).map(([name, bytes]) => ({ name, bytes })));
});
afterAll(() => kb?.t.close());
const search = (query: string) => kb.search(query);

describe('the words-only refusal gate, in German', () => {
  for (const [question, file] of [
    ['Wer übernahm nach dem Tod des Gründers die Uhrmacherei?', 'uhrmacher.txt'],
    ['Wem verkaufte Brandtner zuerst seine Uhren?', 'uhrmacher.txt'],
    ['Warum fährt die Talbahn im Winter seltener?', 'bahn.txt'],
    ['Wie viele Höhenmeter schafft die Strecke der Bahn?', 'bahn.txt'],
    ['Wofür wurde das Gebäude des Klosters nach 1803 genutzt?', 'kloster.txt'],
    ['Wie viele Handschriften hat die Klosterbibliothek?', 'kloster.txt'],
    ['Wie lange reift der Käse aus Felsach?', 'kaese.txt'],
    ['Wohin liefert die Sennerei ihren Käse?', 'kaese.txt'],
  ] as const)
    it(`answers "${question}" from ${file}`, async () => {
      const { refused, citations } = await search(question);
      expect(refused).toBe(false);
      expect(citations[0]!.filename).toBe(file);
    });

  for (const question of ['Wie beantrage ich einen neuen Reisepass?', 'Welche Aktien sollte man im Jahr 2025 kaufen?', 'Wie hoch ist die Mehrwertsteuer auf Lebensmittel?'])
    it(`refuses "${question}"`, async () => {
      expect((await search(question)).refused).toBe(true);
    });
});
