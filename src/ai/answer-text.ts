/**
 * The plain text of a conversation: a turn, the refusal sentence in each language, and the
 * citation markers an answer carries. Both the prompts (prompts.ts) and the offline condenser
 * (offline/condense-query.ts) read them, so they sit below both.
 */

export const NOT_FOUND_ANSWER = "I couldn't find this in the knowledge base.";

/** The refusal in the languages a question may be asked in; English for the rest. */
const NOT_FOUND_IN: Record<string, string> = {
  en: NOT_FOUND_ANSWER,
  de: 'Ich konnte das in der Wissensdatenbank nicht finden.',
  es: 'No pude encontrar esto en la base de conocimientos.',
  fr: "Je n'ai pas trouvé cela dans la base de connaissances.",
  it: 'Non ho trovato questa informazione nella base di conoscenza.',
  pt: 'Não encontrei isso na base de conhecimento.',
  nl: 'Ik kon dit niet vinden in de kennisbank.',
  sv: 'Jag kunde inte hitta detta i kunskapsbasen.',
  pl: 'Nie znalazłem tego w bazie wiedzy.',
  tr: 'Bunu bilgi tabanında bulamadım.',
  ru: 'Я не нашёл этого в базе знаний.',
  uk: 'Я не знайшов цього в базі знань.',
  ar: 'لم أجد هذا في قاعدة المعرفة.',
  hi: 'मुझे यह जानकारी नॉलेज बेस में नहीं मिली।',
  zh: '我在知识库中没有找到相关内容。',
  ja: 'ナレッジベースにこの情報は見つかりませんでした。',
  ko: '지식 베이스에서 이 내용을 찾을 수 없습니다.',
  th: 'ไม่พบข้อมูลนี้ในฐานความรู้',
  vi: 'Tôi không tìm thấy thông tin này trong cơ sở tri thức.',
  id: 'Saya tidak menemukan ini di basis pengetahuan.',
};

/** The refusal sentence in a language (text/language.ts codes); English when there is none for it. */
export function notFoundAnswer(language: string | null | undefined): string {
  return (language && NOT_FOUND_IN[language]) || NOT_FOUND_ANSWER;
}

const REFUSAL_PREFIXES = Object.values(NOT_FOUND_IN).map((s) => s.slice(0, 12));

/** Whether an answer is a refusal, in any of the languages above (how a model's reply, or an earlier turn, says it found nothing). */
export function isRefusalText(text: string): boolean {
  const flat = text.trim().replace(/\s+/g, ' ');
  return flat.startsWith(NOT_FOUND_ANSWER.slice(0, 30)) || REFUSAL_PREFIXES.some((p) => flat.startsWith(p));
}

/** Whether a text holds a refusal anywhere (a transcript turn that says it found nothing). */
export function mentionsRefusal(text: string): boolean {
  return Object.values(NOT_FOUND_IN).some((s) => text.includes(s));
}

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

/** Remove inline citation markers ("[1]", "[2, 3]") from text. */
export function stripCitationMarkers(text: string): string {
  return text
    .replace(/\s*\[\d+(?:\s*,\s*\d+)*\]/g, '')
    .replace(/[ \t]+([.,;:!?])/g, '$1')
    .trim();
}
