import { render } from 'preact';

function Popup() {
  return <main>IP Reputation Lens</main>;
}

render(<Popup />, document.getElementById('app')!);
