// A sandbox child that loads but never serves: its parent must give up instead of waiting forever.

setInterval(() => {}, 60_000);
