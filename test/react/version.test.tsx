import { render, screen } from '@testing-library/react';
import { version } from 'react';
import { renderToString } from 'react-dom/server';
import { expect, it } from 'vitest';

it('runs on the React this project asks for, in the DOM and on the server', () => {
  const expected = `${process.env.STITCH_REACT}.`;
  render(<p>React {version}</p>);
  expect(screen.getByText(/React/).textContent).toContain(expected);
  expect(renderToString(<i>{version}</i>)).toContain(expected);
});
