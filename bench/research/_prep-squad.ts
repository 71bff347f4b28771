import { writeFileSync } from 'node:fs';
import { loadSquad } from './lib/squad';
const s = loadSquad();
console.log(s.paragraphs.length, s.sentences.length, s.questions.length);
writeFileSync('/tmp/gw-research/squad-paragraphs.json', JSON.stringify(s.paragraphs));
writeFileSync('/tmp/gw-research/squad-sentences.json', JSON.stringify(s.sentences));
writeFileSync('/tmp/gw-research/squad-questions.json', JSON.stringify(s.questions.map((q) => q.text)));
