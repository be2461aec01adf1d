/**
 * The chat page's entry: bundled with Preact and `runbridge/client` into /ui/app.js (and its styles
 * into /ui/app.css) by scripts/build-ui.mjs. See docs/ui.md.
 */
import { render } from 'preact';
import './styles/app.css';
import { App } from './app.js';

render(<App />, document.getElementById('app')!);
