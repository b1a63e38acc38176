// Preloaded into the npm reference servers (node --require): they listen on every interface when
// given only a port; the tests must never open more than loopback, so a bare port binds 127.0.0.1.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    const callbacks = args.slice(1).filter((a) => typeof a === "function");
    // Said only on the real outcome: Express 5 also calls a listen callback on error, so the
    // server's own "listening on port N" line appears even when the port was taken.
    this.once("listening", () => process.stderr.write(`deepr-test: listening on 127.0.0.1:${this.address().port}\n`));
    this.once("error", (err) => process.stderr.write(`deepr-test: listen failed: ${err.code || err}\n`));
    return listen.call(this, Number(args[0]), "127.0.0.1", ...callbacks);
  }
  return listen.apply(this, args);
};
