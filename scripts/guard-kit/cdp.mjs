// A CDP client of the spec's shape (send, waitEvent, events) over a WebSocket, for Node 18.20+
// with no dependency: a minimal RFC 6455 client (text frames, client masking, ping/pong, close)
// on node:net, for ws:// endpoints on this machine. Every call has a timeout.
import net from 'node:net';
import { randomBytes } from 'node:crypto';

function frame(opcode, payload) {
  const data = Buffer.from(payload);
  const mask = randomBytes(4);
  const len = data.length;
  const head = len < 126 ? Buffer.from([0x80 | opcode, 0x80 | len])
    : len < 65536 ? Buffer.from([0x80 | opcode, 0x80 | 126, len >> 8, len & 255])
      : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(len)); return b; })()]);
  const body = Buffer.alloc(len);
  for (let i = 0; i < len; i++) body[i] = data[i] ^ mask[i & 3];
  return Buffer.concat([head, mask, body]);
}

/**
 * Connects to a CDP WebSocket URL (ws://host:port/path).
 * @returns {Promise<{ send(method: string, params?: object, sessionId?: string): Promise<any>,
 *   waitEvent(predicate: (e: object) => boolean, ms: number): Promise<object>, events: object[], close(): void, closed: boolean }>}
 */
export function connect(wsUrl, { timeout = 15000 } = {}) {
  const u = new URL(wsUrl);
  if (u.protocol !== 'ws:') throw new Error(`connect: ${wsUrl} is not a ws:// URL`);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port || 80), u.hostname);
    const key = randomBytes(16).toString('base64');
    let buffer = Buffer.alloc(0);
    let open = false;
    let fragments = [];
    const pending = new Map();
    const waiters = new Set();
    let next = 1;
    const client = {
      events: [],
      closed: false,
      send(method, params = {}, sessionId) {
        if (client.closed) return Promise.reject(new Error(`${method}: the connection is closed`));
        const id = next++;
        const msg = { id, method, params };
        if (sessionId) msg.sessionId = sessionId;
        return new Promise((res, rej) => {
          const timer = setTimeout(() => {
            pending.delete(id);
            rej(new Error(`${method}: no answer within ${timeout} ms`));
          }, timeout);
          pending.set(id, { res, rej, timer, method });
          socket.write(frame(1, JSON.stringify(msg)));
        });
      },
      waitEvent(predicate, ms) {
        return new Promise((res, rej) => {
          const w = { predicate, res, rej };
          w.timer = setTimeout(() => {
            waiters.delete(w);
            rej(new Error(`no matching event within ${ms} ms`));
          }, ms);
          waiters.add(w);
        });
      },
      close() {
        if (client.closed) return;
        client.closed = true;
        try {
          socket.write(frame(8, ''));
        } catch {
          // gone
        }
        socket.destroy();
      },
    };
    const fail = (why) => {
      client.closed = true;
      for (const [, p] of pending) {
        clearTimeout(p.timer);
        p.rej(new Error(`${p.method}: ${why}`));
      }
      pending.clear();
    };
    const onMessage = (text) => {
      let m;
      try {
        m = JSON.parse(text);
      } catch {
        return;
      }
      if (m.id !== undefined && pending.has(m.id)) {
        const p = pending.get(m.id);
        pending.delete(m.id);
        clearTimeout(p.timer);
        if (m.error) {
          const e = new Error(`${p.method}: ${m.error.message}`);
          e.cdp = m.error;
          p.rej(e);
        } else {
          p.res(m.result ?? {});
        }
      } else if (m.method) {
        const e = { method: m.method, params: m.params ?? {}, ...(m.sessionId ? { sessionId: m.sessionId } : {}) };
        client.events.push(e);
        for (const w of [...waiters]) {
          let hit = false;
          try {
            hit = w.predicate(e);
          } catch {
            hit = false;
          }
          if (hit) {
            waiters.delete(w);
            clearTimeout(w.timer);
            w.res(e);
          }
        }
      }
    };
    const connectTimer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connect ${wsUrl}: no handshake within ${timeout} ms`));
    }, timeout);
    socket.on('connect', () => {
      socket.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!open) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        buffer = buffer.subarray(end + 4);
        if (!/^HTTP\/1\.1 101/.test(head)) {
          clearTimeout(connectTimer);
          socket.destroy();
          reject(new Error(`connect ${wsUrl}: ${head.split('\r\n')[0]}`));
          return;
        }
        open = true;
        clearTimeout(connectTimer);
        resolve(client);
      }
      for (;;) {
        if (buffer.length < 2) return;
        const fin = (buffer[0] & 0x80) !== 0;
        const opcode = buffer[0] & 0x0f;
        let len = buffer[1] & 0x7f;
        let off = 2;
        if (len === 126) {
          if (buffer.length < 4) return;
          len = buffer.readUInt16BE(2);
          off = 4;
        } else if (len === 127) {
          if (buffer.length < 10) return;
          len = Number(buffer.readBigUInt64BE(2));
          off = 10;
        }
        if (buffer.length < off + len) return;
        const payload = buffer.subarray(off, off + len);
        buffer = buffer.subarray(off + len);
        if (opcode === 8) {
          client.close();
          return;
        }
        if (opcode === 9) {
          socket.write(frame(10, payload));
          continue;
        }
        if (opcode === 1 || opcode === 2 || opcode === 0) {
          fragments.push(Buffer.from(payload));
          if (fin) {
            onMessage(Buffer.concat(fragments).toString('utf8'));
            fragments = [];
          }
        }
      }
    });
    socket.on('error', (e) => {
      if (!open) {
        clearTimeout(connectTimer);
        reject(new Error(`connect ${wsUrl}: ${e.message}`));
      }
      fail(e.message);
    });
    socket.on('close', () => fail('the connection closed'));
  });
}
