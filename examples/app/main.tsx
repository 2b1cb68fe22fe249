import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { StitchDevtools } from '../../src/devtools/index';
import { createEngine } from '../../src/index';
import { StitchProvider } from '../../src/react/index';
import { App } from './App';
import { TraceProvider } from './trace/context';
import { createTraceStore } from './trace/store';
import './styles.css';

// One engine for the app; its trace sink is the store the timelines and counters read.
const trace = createTraceStore();
const engine = createEngine({ trace });

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <StitchProvider engine={engine}>
      <TraceProvider store={trace}>
        <App />
      </TraceProvider>
      <StitchDevtools />
    </StitchProvider>
  </StrictMode>,
);
