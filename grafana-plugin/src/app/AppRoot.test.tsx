import { render, screen } from '@testing-library/react';
import React from 'react';
import { plugin } from '../module';
import { AppRoot } from './AppRoot';

it('renders the app page', () => {
  const props = {} as React.ComponentProps<typeof AppRoot>;
  render(<AppRoot {...props} />);
  expect(screen.getByTestId('jobio-app-root')).toHaveTextContent(/jobio panel/);
  expect(plugin.root).toBe(AppRoot);
});
