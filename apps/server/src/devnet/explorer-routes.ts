// The devnet's explorer pages: a transaction (or what replaced it) and an address, as HTML.
import type { FastifyInstance } from 'fastify';
import type { Devnet } from './devnet';
import { TXID } from './esplora-routes';
import { renderAddressPage, renderReplacedPage, renderTxPage } from './explorer';

export function registerExplorerRoutes(
  scope: FastifyInstance,
  devnet: Devnet,
  validAddress: (address: string) => boolean,
): void {
  scope.get<{ Params: { txid: string } }>('/explorer/tx/:txid', async (req, reply) => {
    const tx = TXID.test(req.params.txid)
      ? await devnet.getTx(req.params.txid.toLowerCase())
      : null;
    if (!tx) {
      const txid = req.params.txid.toLowerCase();
      const replacedBy = TXID.test(txid) ? await devnet.replacedBy(txid) : null;
      if (replacedBy)
        return reply
          .type('text/html; charset=utf-8')
          .send(renderReplacedPage('/explorer', txid, replacedBy));
      return reply.code(404).type('text/plain; charset=utf-8').send('Transaction not found');
    }
    return reply.type('text/html; charset=utf-8').send(renderTxPage('/explorer', tx));
  });
  scope.get<{ Params: { address: string } }>('/explorer/address/:address', async (req, reply) => {
    const { address } = req.params;
    if (!validAddress(address))
      return reply.code(400).type('text/plain; charset=utf-8').send('Invalid Bitcoin address');
    // The newest 50 are enough for a page; the faucet's address gains a coinbase every block.
    const txids = (await devnet.addressTxids(address)).slice(0, 50);
    const txs = [];
    for (const txid of txids) {
      const status = await devnet.txStatus(txid);
      txs.push({ txid, ...(status ?? { confirmed: false }) });
    }
    const outputs = (await devnet.addressOutputs(address)).filter((o) => !o.spent);
    const html = renderAddressPage(
      '/explorer',
      address,
      await devnet.addressStats(address),
      txs,
      outputs,
      await devnet.unitOutputs(address),
    );
    return reply.type('text/html; charset=utf-8').send(html);
  });
}
