import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { StitchDevtools } from '../../src/devtools/index';
import { createEngine } from '../../src/index';
import { StitchProvider } from '../../src/react/index';
import { App } from './App';
import './styles.css';

// One engine for the app. The pages' timelines and counters read the devtools model of it, the
// one the Stitch panel (bottom right) shows.
const engine = createEngine();

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <StitchProvider engine={engine}>
      <App />
      <StitchDevtools />
    </StitchProvider>
  </StrictMode>,
);
