/** The team dashboard page's entry: renders the app into #app (bundled by gateway/src/dashboard/bundle.ts). */
import { render } from 'preact';
import { DashboardApp } from './app';

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<DashboardApp />, root);
}
