/**
 * Who is signed in: the organisation every view reads, and how a view reloads it after a change.
 * The shell (main.tsx) and the views it renders (workspace.tsx) both use it, so it sits below both.
 */
import { signal } from '@preact/signals';
import { gql, setOnSignedOut, type ResultOf } from './gql';
import { Me } from './queries';

export type Org = ResultOf<typeof Me>['organization'];

export const org = signal<Org | null | undefined>(undefined);

/** The session ended while the dashboard was open (expired, revoked): the sign-in form says so. */
export const sessionEnded = signal(false);

setOnSignedOut(() => {
  if (org.value) sessionEnded.value = true;
  org.value = null;
});

export const refreshOrg = async () => {
  try {
    org.value = (await gql(Me)).organization;
  } catch {
    org.value = null;
  }
};
