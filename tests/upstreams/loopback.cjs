// Preloaded into the npm reference servers (node --require): they listen on every interface when
// given only a port; the tests must never open more than loopback, so a bare port binds 127.0.0.1.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    const callbacks = args.slice(1).filter((a) => typeof a === "function");
    return listen.call(this, Number(args[0]), "127.0.0.1", ...callbacks);
  }
  return listen.apply(this, args);
};
