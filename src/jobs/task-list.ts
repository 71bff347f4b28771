/** Every graphile-worker task the service runs, by name (`<domain>__<action>`). */
import type { TaskList } from 'graphile-worker';
import type { AppDeps } from '../context';

export function createTaskList(_deps: AppDeps): TaskList {
  return {};
}
