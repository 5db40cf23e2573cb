import { ApolloProvider } from '@apollo/client/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { createClient } from './client';
import { Live } from './live';
import { Session } from './session';
import { LiveContext } from './use-live';
import { SessionContext } from './use-session';
import './styles.css';

const session = new Session();
const client = createClient(session);
session.attach(client);
const live = new Live(session);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ApolloProvider client={client}>
      <SessionContext.Provider value={session}>
        <LiveContext.Provider value={live}>
          <App />
        </LiveContext.Provider>
      </SessionContext.Provider>
    </ApolloProvider>
  </StrictMode>,
);
