import { render } from 'preact';

function Options() {
  return <main>Options</main>;
}

render(<Options />, document.getElementById('app')!);
