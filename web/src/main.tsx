/** The web UI's entry: renders the app into #app. */
import { render } from 'preact';
import { App, readSession } from './app.js';
import { startQueueRead } from './queue/queue-data.js';
import './styles.css';

// The reads the first page needs start now, side by side: not the session's after the first render
// (its effect runs a frame later), nor the queue's after the session answered and the page drew.
const path = window.location.pathname;
if (path !== '/login') void readSession();
if (path === '/review') startQueueRead();

const root = document.getElementById('app');
if (root) render(<App />, root);
