/**
 * The seconds left until `until` (ms since the epoch), counting down on screen. Hidden from assistive
 * technology: a live region reading every second would drown the page; the text around it says when.
 * `onDone` runs once when the time is up.
 */
import { useEffect, useState } from 'preact/hooks';

export function secondsLeft(until: number, now = Date.now()): number {
  return Math.max(0, Math.ceil((until - now) / 1000));
}

export function Countdown(props: { until: number; onDone?: () => void }) {
  const [left, setLeft] = useState(() => secondsLeft(props.until));
  useEffect(() => {
    const tick = () => {
      const now = secondsLeft(props.until);
      setLeft(now);
      if (now === 0) {
        clearInterval(timer);
        props.onDone?.();
      }
    };
    const timer = setInterval(tick, 250);
    tick();
    return () => clearInterval(timer);
  }, [props.until]);
  return (
    <span class="countdown" aria-hidden="true">
      {left} s
    </span>
  );
}
