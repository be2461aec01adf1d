import { useEffect, useState } from 'preact/hooks';

/** The clock (epoch ms), ticking every `periodMs` while `active` — for running timers; still otherwise. */
export function useNow(active: boolean, periodMs = 100): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), periodMs);
    return () => clearInterval(timer);
  }, [active, periodMs]);
  return now;
}
