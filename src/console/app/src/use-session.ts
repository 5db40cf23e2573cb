import { createContext, useContext, useSyncExternalStore } from 'react';
import type { Operator, Session, SessionState } from './session';

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSessionObject(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('the console renders inside SessionContext');
  return session;
}

export function useSessionState(): SessionState {
  const session = useSessionObject();
  return useSyncExternalStore(session.subscribe, session.snapshot);
}

/** The signed-in operator (pages render only while one is). */
export function useOperator(): Operator {
  const { operator } = useSessionState();
  if (!operator) throw new Error('no operator is signed in');
  return operator;
}
