import { ApolloProvider } from '@apollo/client/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { createClient } from './client';
import { Session } from './session';
import { SessionContext } from './use-session';
import './styles.css';

const session = new Session();
const client = createClient(session);
session.attach(client);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ApolloProvider client={client}>
      <SessionContext.Provider value={session}>
        <App />
      </SessionContext.Provider>
    </ApolloProvider>
  </StrictMode>,
);
