// A net for the SSRF tests: while installed, every TCP connection this process opens to an address outside
// 127.0.0.0/8 is refused before a packet leaves (as ECONNREFUSED) and recorded, so a broken address guard fails its
// test instead of reaching the network. It patches the TCP handle's connect itself, below the lookup: whatever a
// lookup answered and whatever `lookup` option a request carried, the address connected to is the one checked here.
import { constants } from 'node:os';

interface TcpHandle {
  connect(request: unknown, address: string, port: number): number;
  connect6(request: unknown, address: string, port: number): number;
}

/** The handles' prototype net's sockets connect through (the deprecated `process.binding`: no public hook is this low). */
const tcp = (process as unknown as { binding(name: 'tcp_wrap'): { TCP: { prototype: TcpHandle } } }).binding('tcp_wrap').TCP.prototype;

export interface ConnectionNet {
  /** Every connection attempted while installed, `address:port`. */
  attempted: string[];
  /** Those refused: outside 127.0.0.0/8. */
  refused: string[];
  uninstall(): void;
}

/** Installs the net until `uninstall()`. */
export function loopbackOnly(): ConnectionNet {
  const { connect, connect6 } = tcp;
  const net: ConnectionNet = {
    attempted: [],
    refused: [],
    uninstall() {
      tcp.connect = connect;
      tcp.connect6 = connect6;
    },
  };
  const guard = (original: TcpHandle['connect']): TcpHandle['connect'] => function (this: TcpHandle, request, address, port) {
    net.attempted.push(`${address}:${port}`);
    if (!/^127\.\d+\.\d+\.\d+$/.test(address)) {
      net.refused.push(`${address}:${port}`);
      return -constants.errno.ECONNREFUSED;
    }
    return original.call(this, request, address, port);
  };
  tcp.connect = guard(connect);
  tcp.connect6 = guard(connect6);
  return net;
}
