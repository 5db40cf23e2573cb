// Baseline for GET /api/v1/users/me: a minimal Express 5 + jsonwebtoken (KeyObject) + pg server
// running the service's session-check SQL. Started by the benchmark as its own process.
import express from 'express';
import { liveUser, port } from './common.js';

const app = express();
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.get('/api/v1/users/me', async (req, res) => {
  const user = await liveUser(req.get('authorization'));
  if (!user) {
    res.status(401).json({ code: 'UNAUTHENTICATED' });
    return;
  }
  res.json({
    id: user.id,
    phone: user.phone,
    nickname: user.nickname,
    avatarUrl: user.avatar_key ? `/api/v1/avatars/${user.avatar_key}` : null,
    hasPassword: user.has_password,
    role: user.role,
    createdAt: user.created_at.toISOString(),
    lastLoginAt: user.last_login_at?.toISOString() ?? null,
  });
});
app.listen(port, '127.0.0.1');
