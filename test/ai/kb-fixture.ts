/** A small product knowledge base (retrieved passages) and questions with known answers, shared by the AI tests. */
import type { AnswerPassage } from '../../src/ai/prompts';

export const ZEPHYR_PASSAGES: AnswerPassage[] = [
  {
    marker: 1,
    source: 'zephyr-overview.md',
    text:
      'The Zephyr-9 is a long-range survey drone designed and manufactured by Aerodyne Systems in Toulouse, France. ' +
      'It was first unveiled at the Paris Air Show in June 2021. ' +
      'The airframe is built from carbon-fibre composite and weighs 4.2 kilograms without its payload.',
  },
  {
    marker: 2,
    source: 'zephyr-specs.pdf',
    text:
      'With the standard battery pack, the Zephyr-9 can stay airborne for up to 95 minutes. ' +
      'Its maximum cruising speed is 72 km/h, and it can operate in winds of up to 45 km/h. ' +
      'The drone carries a 20-megapixel camera and an optional thermal sensor.',
  },
  {
    marker: 3,
    source: 'warranty.md',
    text:
      'Every Zephyr-9 comes with a two-year limited warranty covering manufacturing defects. ' +
      'The warranty does not cover damage caused by crashes, water immersion or unauthorised repairs. ' +
      'Customers can extend the coverage to five years by purchasing the Aerodyne Care plan within 30 days of delivery.',
  },
  {
    marker: 4,
    source: 'support.md',
    text:
      'Firmware updates are released every quarter through the Aerodyne Pilot app. ' +
      'To reset the drone to factory settings, hold the power button and the return-home button together for ten seconds. ' +
      'Support tickets are answered within one business day.',
  },
  {
    marker: 5,
    source: 'company.md',
    text:
      'Aerodyne Systems was founded in 2009 by Claire Moreau and Julien Petit. ' +
      'The company employs about 340 people and opened a second factory in Montreal in 2019. ' +
      'Its chief executive officer is Claire Moreau.',
  },
];

export interface QaCase {
  question: string;
  /** Text the answer must contain. */
  expect: string;
  marker: number;
}

export const ZEPHYR_CASES: QaCase[] = [
  { question: 'Who makes the Zephyr-9?', expect: 'Aerodyne Systems', marker: 1 },
  { question: 'How long can the Zephyr-9 fly on one battery?', expect: '95 minutes', marker: 2 },
  { question: 'When was the Zephyr-9 first unveiled?', expect: 'June 2021', marker: 1 },
  { question: 'How much does the Zephyr-9 weigh?', expect: '4.2 kilograms', marker: 1 },
  { question: 'How long is the warranty?', expect: 'two-year', marker: 3 },
  { question: 'How do I reset the drone to factory settings?', expect: 'hold the power button', marker: 4 },
  { question: 'Who is the chief executive officer of Aerodyne Systems?', expect: 'Claire Moreau', marker: 5 },
  { question: 'Where is the second Aerodyne factory?', expect: 'Montreal', marker: 5 },
  { question: 'How many people work at Aerodyne?', expect: '340', marker: 5 },
  { question: 'What is the top speed of the Zephyr-9?', expect: '72 km/h', marker: 2 },
];

/** SQuAD-style encyclopaedic passages, where the distractors share the topic. */
export const TESLA_PASSAGES: AnswerPassage[] = [
  {
    marker: 1,
    source: 'tesla-early-life.txt',
    text:
      'Nikola Tesla was born on 10 July 1856 in the village of Smiljan, in the Austrian Empire. ' +
      'His father, Milutin Tesla, was an Eastern Orthodox priest. ' +
      'Tesla studied engineering at the Austrian Polytechnic in Graz but never received a degree.',
  },
  {
    marker: 2,
    source: 'tesla-america.txt',
    text:
      'Tesla emigrated to the United States in 1884, where he briefly worked for Thomas Edison at the Edison Machine Works in New York. ' +
      'He left after a dispute over payment and founded his own company, Tesla Electric Light & Manufacturing. ' +
      'In 1888 he licensed his alternating current induction motor patents to George Westinghouse.',
  },
  {
    marker: 3,
    source: 'tesla-later-years.txt',
    text:
      'In his later years Tesla lived in a series of New York hotels. ' +
      'He died of coronary thrombosis in room 3327 of the New Yorker Hotel on 7 January 1943, at the age of 86. ' +
      'The SI unit of magnetic flux density, the tesla, was named in his honour in 1960.',
  },
];

export const TESLA_CASES: QaCase[] = [
  { question: 'In what year did Tesla emigrate to the United States?', expect: '1884', marker: 2 },
  { question: "What was the profession of Tesla's father?", expect: 'priest', marker: 1 },
  { question: 'Who did Tesla license his induction motor patents to?', expect: 'George Westinghouse', marker: 2 },
  { question: 'How old was Tesla when he died?', expect: '86', marker: 3 },
  { question: 'Where was Nikola Tesla born?', expect: 'Smiljan', marker: 1 },
];
