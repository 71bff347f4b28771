/**
 * Voice settings over REST: the organisation's (/api/settings/voice) and a KB's override
 * (/api/kbs/:id/voice-settings). Not in the spec, which leaves settings to the dashboard; the paths
 * follow its /api style. Parse, call the one service, reshape: no logic here.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { getVoiceSettings, updateVoiceSettings, ZVoiceSettingsDto } from '../../services/voice/update-voice-settings';
import { ZVoiceSettingsPatch } from '../../services/voice/voice-settings';
import type { HonoEnv } from '../hono-env';
import { errorResponses, security } from '../openapi';

const ZKbParams = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'kb_3kTMd9aQ0XW2mLzE7pJc' }) });
const ok = { description: 'The voice settings in effect', content: { 'application/json': { schema: z.object({ voice_settings: ZVoiceSettingsDto }) } } };
const patchBody = {
  required: true,
  description: 'Only the fields given change; null removes a field (a KB then uses the organisation’s, the organisation the default)',
  content: { 'application/json': { schema: ZVoiceSettingsPatch } },
};

export function registerVoiceSettingsRoutes(app: OpenAPIHono<HonoEnv>) {
  const tags = ['Voice settings'];
  app.openapi(
    createRoute({ method: 'get', path: '/settings/voice', tags, summary: 'The organisation’s voice settings', security, responses: { 200: ok, ...errorResponses() } }),
    async (c) => c.json(await getVoiceSettings(c.var.svc, {}), 200),
  );
  app.openapi(
    createRoute({
      method: 'patch',
      path: '/settings/voice',
      tags,
      summary: 'Change the organisation’s voice settings',
      security,
      request: { body: patchBody },
      responses: { 200: ok, ...errorResponses(400, 413, 415) },
    }),
    async (c) => c.json(await updateVoiceSettings(c.var.svc, c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/voice-settings',
      tags,
      summary: 'A knowledge base’s voice settings (its overrides over the organisation’s)',
      security,
      request: { params: ZKbParams },
      responses: { 200: ok, ...errorResponses(404) },
    }),
    async (c) => c.json(await getVoiceSettings(c.var.svc, { kb_id: c.req.valid('param').id }), 200),
  );
  app.openapi(
    createRoute({
      method: 'patch',
      path: '/kbs/{id}/voice-settings',
      tags,
      summary: 'Override voice settings for one knowledge base',
      security,
      request: { params: ZKbParams, body: patchBody },
      responses: { 200: ok, ...errorResponses(400, 404, 413, 415) },
    }),
    async (c) => c.json(await updateVoiceSettings(c.var.svc, { ...c.req.valid('json'), kb_id: c.req.valid('param').id }), 200),
  );
}
