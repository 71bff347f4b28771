/**
 * A question in each of six languages finds its passage and is answered with a whole sentence of
 * it, through REST on one KB that holds a document in each: Chinese, Japanese and Thai (written
 * without spaces between words, segmented by ICU), Arabic, Russian and German (stemmed in their
 * language). The documents' detected languages are shown by the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

const DOCS = [
  {
    name: 'great-wall.txt',
    language: 'zh',
    text: '长城是中国古代的军事防御工程。长城的总长度超过两万一千公里。明朝时期修建了现存的大部分长城。每年有数百万游客参观长城。',
    question: '长城的总长度是多少？',
    sentence: '长城的总长度超过两万一千公里。',
  },
  {
    name: 'fuji.txt',
    language: 'ja',
    text: '富士山は日本で最も高い山です。富士山の標高は三千七百七十六メートルです。毎年七月と八月に多くの登山者が山頂を目指します。',
    question: '富士山の標高はどのくらいですか？',
    sentence: '富士山の標高は三千七百七十六メートルです。',
  },
  {
    name: 'chiang-mai.txt',
    language: 'th',
    // Thai separates sentences with a space, not a full stop.
    text: 'เชียงใหม่เป็นเมืองใหญ่ในภาคเหนือของประเทศไทย ดอยสุเทพเป็นภูเขาที่อยู่ทางทิศตะวันตกของเมือง เทศกาลยี่เป็งจัดขึ้นทุกปีในเดือนพฤศจิกายน',
    question: 'เทศกาลยี่เป็งจัดขึ้นในเดือนอะไร',
    sentence: 'เทศกาลยี่เป็งจัดขึ้นทุกปีในเดือนพฤศจิกายน',
  },
  {
    name: 'cairo.txt',
    language: 'ar',
    text: 'القاهرة هي عاصمة جمهورية مصر العربية. يمر نهر النيل عبر وسط المدينة. يبلغ عدد سكان القاهرة الكبرى أكثر من عشرين مليون نسمة.',
    question: 'كم يبلغ عدد سكان القاهرة الكبرى؟',
    sentence: 'يبلغ عدد سكان القاهرة الكبرى أكثر من عشرين مليون نسمة.',
  },
  {
    name: 'baikal.txt',
    language: 'ru',
    text: 'Байкал — самое глубокое озеро на планете. Его максимальная глубина составляет 1642 метра. В озере обитает байкальская нерпа.',
    question: 'Какова максимальная глубина Байкала?',
    sentence: 'Его максимальная глубина составляет 1642 метра.',
  },
  {
    name: 'zugspitze.txt',
    language: 'de',
    text: 'Die Zugspitze ist der höchste Berg Deutschlands. Sie liegt im Wettersteingebirge an der Grenze zu Österreich. Der Gipfel erreicht eine Höhe von 2962 Metern.',
    question: 'Welche Höhe erreicht der Gipfel der Zugspitze?',
    sentence: 'Der Gipfel erreicht eine Höhe von 2962 Metern.',
  },
];

type Search = { answer: string; refused: boolean; citations: Array<{ filename: string }> };

let t: TestApp;
let api: ReturnType<typeof restClient>;
let kbId: string;
beforeAll(async () => {
  t = await createTestApp();
  const { api_key } = await createOrgWithKey(t.deps);
  api = restClient(t.app, api_key);
  kbId = (await api.post('/api/kbs', { name: 'Six languages' })).body.kb.id;
  for (const d of DOCS) expect((await uploadFile(t.app, api_key, kbId, { name: d.name, bytes: d.text })).status).toBe(202);
  await runQueuedJobs(t);
});
afterAll(() => t?.close());

const search = async (query: string): Promise<Search> => {
  const res = await api.post('/api/rag/search', { kb_id: kbId, query, top_k: 5 });
  expect(res.status).toBe(200);
  return res.body as Search;
};

describe('questions in six languages', () => {
  it('shows each document in the language it was detected in', async () => {
    const { documents } = (await api.get(`/api/kbs/${kbId}/documents`)).body as { documents: Array<{ filename: string; language: string | null; status: string }> };
    expect(Object.fromEntries(documents.map((d) => [d.filename, [d.status, d.language]]))).toEqual(Object.fromEntries(DOCS.map((d) => [d.name, ['ready', d.language]])));
  });

  for (const d of DOCS) {
    it(`${d.language}: finds the passage and quotes the whole sentence that answers`, async () => {
      const { answer, refused, citations } = await search(d.question);
      expect(refused).toBe(false);
      expect(citations[0]!.filename).toBe(d.name);
      // The sentence as written, with its marker, and none of the document's other sentences.
      expect(answer.replace(/\s*\[\d+\]/g, '')).toContain(d.sentence.replace(/[.。]$/, ''));
      const others = d.text.split(d.sentence).join('\n').split(/(?<=[.。])|\s(?=\p{sc=Thai})/u).map((s) => s.trim()).filter((s) => s.length > 3);
      for (const other of others) expect(answer).not.toContain(other);
    });
  }

  it('refuses in the language of the question', async () => {
    const { answer, refused } = await search('量子计算机的价格是多少？');
    expect(refused).toBe(true);
    expect(answer).toBe('我在知识库中没有找到相关内容。');
  });
});
