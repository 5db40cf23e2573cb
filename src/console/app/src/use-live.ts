import { createContext, useContext, useSyncExternalStore } from 'react';
import type { Live, LiveStatus } from './live';

export const LiveContext = createContext<Live | undefined>(undefined);

export function useLive(): Live {
  const live = useContext(LiveContext);
  if (!live) throw new Error('the console renders inside LiveContext');
  return live;
}

/** The live socket's state, for the page's indicator. */
export function useLiveStatus(): LiveStatus {
  const live = useLive();
  return useSyncExternalStore(live.subscribe, live.status);
}
