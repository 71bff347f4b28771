/**
 * Questions about subjects none of the shared corpora holds (earnings calls of Snowflake and
 * Microsoft, SQuAD's 48 Wikipedia articles, PCRE2's manual, the mixed documents of shared/data/docs):
 * the kind of thing a user asks a company assistant that was given the wrong documents. Every one
 * should be refused. Written to share words with the corpora on purpose ("revenue", "pattern",
 * "customers", "report"), since keyword overlap is what fools a retriever into a confident answer.
 */
export const OFF_TOPIC: string[] = [
  'How many days of leave do new employees get?',
  'What is the return policy for damaged items?',
  'How do I reset my router password?',
  'What time does the cafeteria close on Fridays?',
  'Which dentist is covered by the company insurance plan?',
  'How do I book a meeting room for ten people?',
  'What is the recipe for banana bread?',
  'Who won the 2018 FIFA World Cup final?',
  'How much does a monthly parking permit cost for staff?',
  'What is the dress code for customer visits?',
  'How do I replace the toner cartridge in the office printer?',
  'What vaccinations do I need before travelling to Peru?',
  'How long is the warranty on the electric kettle?',
  'What is the boiling point of ethanol at sea level?',
  'Which airline has the most generous baggage allowance to Tokyo?',
  'How many calories are in a slice of pepperoni pizza?',
  'What is the maternity pay policy for part-time staff?',
  'How do I file an expense report for a taxi ride?',
  'When is the next full moon?',
  'What is the best fertiliser for tomato plants?',
  'How do I cancel my gym membership?',
  'What are the opening hours of the Louvre on Sundays?',
  'How do I knit a scarf with a cable pattern?',
  'What was the revenue of the local bakery in March?',
  'How many goals did the home team score in the last match?',
];

/**
 * More of the same kind, written before the refusal gate was re-tuned on OFF_TOPIC and never used
 * to tune it: what the gate does on questions it has not seen. One question first written here,
 * "What is the capital of Australia?", was replaced: SQuAD's Melbourne article answers it.
 */
export const OFF_TOPIC_HELD_OUT: string[] = [
  'How many vacation days can I carry over to next year?',
  'Where do I pick up my new laptop?',
  'What is the Wi-Fi password for guests?',
  'Who do I call if my badge stops working?',
  'How do I change my direct deposit account?',
  'What is the refund policy for cancelled flights?',
  'How much sugar goes into a chocolate cake?',
  'Which team won the 2022 NBA championship?',
  'How do I unclog a kitchen sink?',
  'What is the speed limit on residential streets?',
  'When does the annual company picnic take place?',
  'How many sick days are allowed per month?',
  'How do I renew my passport before it expires?',
  'How do I apply for a mortgage with a low credit score?',
  'What time does the pharmacy open on Saturdays?',
  'How long should I boil an egg for a soft yolk?',
  'Which plants grow well in a shady garden?',
  'How do I transfer my phone number to a new carrier?',
  'What is the late fee for an overdue library book?',
  'How many players are on a rugby union team?',
  'What is the tallest mountain in Africa?',
  'How do I request a standing desk for my office?',
  'What are the symptoms of a vitamin D deficiency?',
  'How often should I change the oil in my car?',
  'What is the price of a season ticket for the local football club?',
];
