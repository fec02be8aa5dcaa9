//! [`Listener`]: a connection of its own that LISTENs on channels, for a host to hear of
//! changes other hosts make to shared state it caches.

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, NoTls};

use super::database::Database;
use super::error::PgError;

/// Notifications on the channels a [`Database::listen`] named, in the order the server sent
/// them. Ends when the connection is lost (listen again, and reload what the channels
/// guard: notifications sent meanwhile are gone).
#[derive(Debug)]
pub struct Listener {
    notifications: mpsc::UnboundedReceiver<Notification>,
    // Kept for the connection's lifetime: dropping the client closes the connection.
    _client: tokio_postgres::Client,
}

/// One notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    /// The channel.
    pub channel: String,
    /// Its payload.
    pub payload: String,
}

impl Listener {
    /// The next notification, or `None` once the connection is gone.
    pub async fn next(&mut self) -> Option<Notification> {
        self.notifications.recv().await
    }
}

impl Database {
    /// Opens a connection outside the pool (a pooled one would be recycled) and LISTENs on
    /// `channels`. The schema is brought up to date first, as for any other use.
    pub async fn listen(&self, channels: &[&str]) -> Result<Listener, PgError> {
        self.check().await?;
        let (client, mut connection) =
            self.config()
                .connect(NoTls)
                .await
                .map_err(|source| PgError::Listen {
                    target: self.target().to_owned(),
                    source,
                })?;
        let (sender, notifications) = mpsc::unbounded_channel();
        let mut messages =
            futures::stream::poll_fn(move |context| connection.poll_message(context));
        tokio::spawn(async move {
            while let Some(message) = messages.next().await {
                match message {
                    Ok(AsyncMessage::Notification(notification)) => {
                        let sent = sender.send(Notification {
                            channel: notification.channel().to_owned(),
                            payload: notification.payload().to_owned(),
                        });
                        if sent.is_err() {
                            break;
                        }
                    }
                    Ok(_) => {}
                    Err(error) => {
                        tracing::warn!("PostgreSQL listener connection lost: {error}");
                        break;
                    }
                }
            }
        });
        for channel in channels {
            // Channel names are identifiers: quoted, so that any name we choose is taken as is.
            client
                .batch_execute(&format!("LISTEN \"{}\"", channel.replace('"', "\"\"")))
                .await?;
        }
        Ok(Listener {
            notifications,
            _client: client,
        })
    }
}
