import { z } from 'zod';
import type { KnowledgeBase } from '../../../db/types';

export const ZKb = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  doc_count: z.number().int(),
  widget_enabled: z.boolean(),
  created_at: z.string(),
});
export type KbDto = z.infer<typeof ZKb>;

export function toKbDto(kb: KnowledgeBase, docCount: number): KbDto {
  return {
    id: kb.id,
    name: kb.name,
    description: kb.description,
    doc_count: docCount,
    widget_enabled: kb.widget_enabled,
    created_at: kb.created_at.toISOString(),
  };
}
