/**
 * Who is signed in: the organisation every view reads, and how a view reloads it after a change.
 * The shell (main.tsx) and the views it renders (workspace.tsx) both use it, so it sits below both.
 */
import { signal } from '@preact/signals';
import { gql, setOnSignedOut, type ResultOf } from './gql';
import { Me } from './queries';

export type Org = ResultOf<typeof Me>['organization'];

export const org = signal<Org | null | undefined>(undefined);
export type Me = ResultOf<typeof Me>['me'];
/** Who is signed in and what they may do: views hide what the role cannot do (the server refuses it anyway). */
export const me = signal<Me | null>(null);
export const may = (permission: string) => me.value?.permissions.includes(permission) ?? false;

/** The session ended while the dashboard was open (expired, revoked): the sign-in form says so. */
export const sessionEnded = signal(false);

setOnSignedOut(() => {
  if (org.value) sessionEnded.value = true;
  org.value = null;
});

export const refreshOrg = async () => {
  try {
    const r = await gql(Me);
    me.value = r.me;
    org.value = r.organization;
  } catch {
    org.value = null;
  }
};
