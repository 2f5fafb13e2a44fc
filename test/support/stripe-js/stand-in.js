// A stand-in for Stripe.js (https://js.stripe.com/v3/), which cannot be downloaded here: the calls the hosted
// page makes, with Stripe's names and shapes, against the stand-in's own origin (test/support/stripe-js.ts),
// which passes Stripe's API calls on to stripe-mock through the recording proxy. As in Stripe.js, the card is
// typed into a frame of Stripe's origin, which alone sends it (to /v1/payment_methods); the page's own script
// never sees it. 3-D Secure is Stripe's redirect: to the issuer's challenge, then back to the `return_url`.
(function () {
  const origin = new URL(document.currentScript.src).origin;

  function Stripe(publishableKey) {
    let frame = null;
    const api = async (method, path, params) => {
      const query = method === 'GET' ? `?${new URLSearchParams(params)}` : '';
      const res = await fetch(`${origin}${path}${query}`, {
        method,
        headers: { Authorization: `Bearer ${publishableKey}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: method === 'GET' ? undefined : new URLSearchParams(params),
      });
      return res.json();
    };
    const intentOf = (clientSecret) => clientSecret.split('_secret_')[0];
    // The card frame makes the PaymentMethod itself and answers its id alone.
    const paymentMethodFromFrame = () =>
      new Promise((resolve) => {
        const onMessage = (event) => {
          if (event.origin !== origin || event.source !== frame.contentWindow) return;
          window.removeEventListener('message', onMessage);
          resolve(event.data);
        };
        window.addEventListener('message', onMessage);
        frame.contentWindow.postMessage({ type: 'create-payment-method', key: publishableKey }, origin);
      });
    const challenge = (intent, clientSecret, returnUrl) => {
      const query = new URLSearchParams({ payment_intent: intent.id, client_secret: clientSecret, return_url: returnUrl });
      window.location.assign(`${origin}/3d_secure?${query}`);
      return new Promise(() => {});
    };

    return {
      elements({ clientSecret }) {
        return {
          clientSecret,
          create(type) {
            if (type !== 'payment') throw new Error(`Stripe.js stand-in: only the Payment Element, not ${type}`);
            return {
              mount(target) {
                const host = typeof target === 'string' ? document.querySelector(target) : target;
                frame = document.createElement('iframe');
                frame.src = `${origin}/elements/payment`;
                frame.title = 'Secure payment input frame';
                frame.style.cssText = 'width:100%;height:180px;border:0';
                host.append(frame);
              },
            };
          },
        };
      },

      async confirmPayment({ elements, confirmParams, redirect }) {
        const made = await paymentMethodFromFrame();
        if (made.error) return { error: made.error };
        const clientSecret = elements.clientSecret;
        const intent = await api('POST', `/v1/payment_intents/${intentOf(clientSecret)}/confirm`, {
          payment_method: made.id,
          client_secret: clientSecret,
          return_url: confirmParams.return_url,
        });
        if (intent.error) return { error: intent.error };
        if (intent.status === 'requires_action') return challenge(intent, clientSecret, confirmParams.return_url);
        if (redirect === 'if_required') return { paymentIntent: intent };
        window.location.assign(`${confirmParams.return_url}?payment_intent=${intent.id}&redirect_status=${intent.status}`);
        return new Promise(() => {});
      },

      async handleNextAction({ clientSecret }) {
        const intent = await api('GET', `/v1/payment_intents/${intentOf(clientSecret)}`, { client_secret: clientSecret });
        if (intent.error) return { error: intent.error };
        if (intent.status === 'requires_action') return challenge(intent, clientSecret, window.location.href);
        return { paymentIntent: intent };
      },
    };
  }

  window.Stripe = Stripe;
})();
