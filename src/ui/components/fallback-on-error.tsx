import { Component, type ComponentChildren } from 'preact';

/**
 * Shows `children`, or `fallback` once drawing them threw: a part of the page that fails takes only
 * itself down, never what is beside it (a turn's text never hides its tool calls or their questions).
 */
export class FallbackOnError extends Component<
  { fallback: ComponentChildren; children: ComponentChildren },
  { failed: boolean }
> {
  override state = { failed: false };

  static override getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: unknown): void {
    // Said, since it is a bug of the page; the page goes on with the fallback.
    console.warn('A part of the page could not be drawn; it is shown as text.', error);
  }

  override render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
