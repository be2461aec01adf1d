import type { RefObject } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** Within this many pixels of the end, the window counts as at the bottom (a wheel notch is about 100). */
const AT_BOTTOM_PX = 48;

/** What {@link useFollowStream} gives the run view. */
export interface FollowStream {
  /** The person scrolled up and there is output below the window: offer to jump to it. */
  behind: boolean;
  /** Scrolls to the end and follows the output again. */
  jump: () => void;
}

/**
 * Keeps the newest output of a live run in view (docs/ui.md): while the window is at the bottom,
 * every growth of `watched` (text, reasoning, a tool card, the approval question, the message box,
 * and at the end the run's outcome) scrolls it to the end again. `live` says the run was seen
 * running in this view, and stays true once it has been: a run opened after it ended is read from its
 * top, but one followed to its end is followed to its outcome. Once the person scrolls up, it stays where they put it and `behind`
 * says there is more below; scrolling back to the end, or `jump`, follows again. Only a scroll upward
 * lets go: the browser's own scrolls (anchoring as content changes above, clamping as it shrinks)
 * never go up past the end, so they cannot stop the following.
 */
export function useFollowStream(live: boolean, watched: RefObject<HTMLElement | null>): FollowStream {
  const [behind, setBehind] = useState(false);
  const following = useRef(true);

  useEffect(() => {
    const element = watched.current;
    if (!live || !element) {
      setBehind(false);
      return;
    }
    const page = document.documentElement;
    const below = () => page.scrollHeight - (window.scrollY + window.innerHeight);
    let lastY = window.scrollY;
    const onScroll = () => {
      const y = window.scrollY;
      if (below() <= AT_BOTTOM_PX) following.current = true;
      else if (y < lastY) following.current = false;
      lastY = y;
      setBehind(!following.current);
    };
    const onGrowth = () => {
      if (following.current && below() > 0) {
        window.scrollTo({ top: page.scrollHeight, behavior: 'instant' });
        lastY = window.scrollY;
      }
      setBehind(!following.current && below() > AT_BOTTOM_PX);
    };
    const observer = new ResizeObserver(onGrowth);
    observer.observe(element);
    addEventListener('scroll', onScroll, { passive: true });
    addEventListener('resize', onGrowth);
    return () => {
      observer.disconnect();
      removeEventListener('scroll', onScroll);
      removeEventListener('resize', onGrowth);
    };
  }, [live, watched]);

  const jump = useCallback(() => {
    following.current = true;
    window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' });
    setBehind(false);
  }, []);
  return { behind, jump };
}
