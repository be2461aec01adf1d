// `node --import` this file to have every package the process imports by name written, one URL a line,
// to the file named by RUNBRIDGE_TEST_LOADED_LOG: what a test reads to tell which packages a command loads.
import { register } from 'node:module';

register('./resolve-hook.mjs', import.meta.url);
